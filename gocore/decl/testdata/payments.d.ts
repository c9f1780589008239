declare namespace payments {
  type PaymentIntentsCreateInput = {
    /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    customer?: string | {
      name?: string;
      /** Format: email. */
      email?: string;
      phone?: string;
      address?: {
        line1: string;
        line2?: string | null;
        city?: string;
        state?: string;
        postal_code?: string;
        /** ISO 3166-1 alpha-2. */
        country: string;
      };
      shipping?: {
        name: string;
        address: {
          line1: string;
          line2?: string | null;
          city?: string;
          state?: string;
          postal_code?: string;
          /** ISO 3166-1 alpha-2. */
          country: string;
        };
      };
      tax_ids?: {
        type: "eu_vat" | "gb_vat" | "us_ein" | "ch_vat";
        value: string;
      }[];
      /** Your own key-value pairs, kept with the object. */
      metadata?: Record<string, string>;
    };
    /** How the customer pays. */
    payment_method?: {
      type: "card";
      card: {
        number: string;
        exp_month: number;
        exp_year: number;
        cvc?: string;
      };
    } | {
      type: "sepa_debit";
      sepa_debit: {
        iban: string;
      };
      mandate?: {
        /** Format: date-time. */
        accepted_at?: string;
        /** Format: ipv4. */
        ip_address?: string;
      };
    } | {
      type: "us_bank_account";
      us_bank_account: {
        routing_number: string;
        account_number: string;
        account_holder_type?: "individual" | "company";
      };
    } | {
      type: "wallet";
      wallet: "apple_pay" | "google_pay" | "paypal";
      token: string;
    };
    /** Default: "automatic". */
    capture_method?: "automatic" | "automatic_async" | "manual";
    /** Default: false. */
    confirm?: boolean;
    description?: string;
    /** Format: email. */
    receipt_email?: string;
    statement_descriptor?: string;
    application_fee_amount?: number;
    transfer_data?: {
      destination: string;
      /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
      amount?: number;
    };
    /** Your own key-value pairs, kept with the object. */
    metadata?: Record<string, string>;
    /**
     * Retries with the same key create one payment only.
     * Format: uuid.
     */
    idempotency_key?: string;
  };
  type PaymentIntentsCreateOutput = {
    id: string;
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "requires_capture" | "canceled" | "succeeded";
    next_action?: {
      type?: "redirect_to_url" | "use_sdk";
      redirect_to_url?: {
        /** Format: uri. */
        url?: string;
        return_url?: string;
      };
    } | null;
    last_payment_error?: null | {
      code?: string;
      decline_code?: string;
      message?: string;
    };
    /** Unix time in seconds. */
    created?: number;
  };
  /** Create a payment intent: the amount to collect from a customer, and how. */
  function payment_intents_create(input: PaymentIntentsCreateInput): Promise<PaymentIntentsCreateOutput>;

  type PaymentIntentsRetrieveInput = {
    id: string;
  };
  type PaymentIntentsRetrieveOutput = {
    id: string;
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "requires_capture" | "canceled" | "succeeded";
    next_action?: {
      type?: "redirect_to_url" | "use_sdk";
      redirect_to_url?: {
        /** Format: uri. */
        url?: string;
        return_url?: string;
      };
    } | null;
    last_payment_error?: null | {
      code?: string;
      decline_code?: string;
      message?: string;
    };
    /** Unix time in seconds. */
    created?: number;
  };
  /** Retrieve a payment intent. */
  function payment_intents_retrieve(input: PaymentIntentsRetrieveInput): Promise<PaymentIntentsRetrieveOutput>;

  type PaymentIntentsConfirmInput = {
    id: string;
    /** How the customer pays. */
    payment_method?: {
      type: "card";
      card: {
        number: string;
        exp_month: number;
        exp_year: number;
        cvc?: string;
      };
    } | {
      type: "sepa_debit";
      sepa_debit: {
        iban: string;
      };
      mandate?: {
        /** Format: date-time. */
        accepted_at?: string;
        /** Format: ipv4. */
        ip_address?: string;
      };
    } | {
      type: "us_bank_account";
      us_bank_account: {
        routing_number: string;
        account_number: string;
        account_holder_type?: "individual" | "company";
      };
    } | {
      type: "wallet";
      wallet: "apple_pay" | "google_pay" | "paypal";
      token: string;
    };
    /** Format: uri. */
    return_url?: string;
    off_session?: boolean;
  };
  type PaymentIntentsConfirmOutput = {
    id: string;
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "requires_capture" | "canceled" | "succeeded";
    next_action?: {
      type?: "redirect_to_url" | "use_sdk";
      redirect_to_url?: {
        /** Format: uri. */
        url?: string;
        return_url?: string;
      };
    } | null;
    last_payment_error?: null | {
      code?: string;
      decline_code?: string;
      message?: string;
    };
    /** Unix time in seconds. */
    created?: number;
  };
  /** Confirm a payment intent, optionally with a new payment method. */
  function payment_intents_confirm(input: PaymentIntentsConfirmInput): Promise<PaymentIntentsConfirmOutput>;

  type PaymentIntentsCaptureInput = {
    id: string;
    /** Less than the authorized amount releases the rest. */
    amount_to_capture?: number;
  };
  type PaymentIntentsCaptureOutput = {
    id: string;
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "requires_capture" | "canceled" | "succeeded";
    next_action?: {
      type?: "redirect_to_url" | "use_sdk";
      redirect_to_url?: {
        /** Format: uri. */
        url?: string;
        return_url?: string;
      };
    } | null;
    last_payment_error?: null | {
      code?: string;
      decline_code?: string;
      message?: string;
    };
    /** Unix time in seconds. */
    created?: number;
  };
  /** Capture a payment intent created with capture_method manual. */
  function payment_intents_capture(input: PaymentIntentsCaptureInput): Promise<PaymentIntentsCaptureOutput>;

  type PaymentIntentsCancelInput = {
    id: string;
    cancellation_reason?: "duplicate" | "fraudulent" | "requested_by_customer" | "abandoned";
  };
  type PaymentIntentsCancelOutput = {
    id: string;
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "requires_capture" | "canceled" | "succeeded";
    next_action?: {
      type?: "redirect_to_url" | "use_sdk";
      redirect_to_url?: {
        /** Format: uri. */
        url?: string;
        return_url?: string;
      };
    } | null;
    last_payment_error?: null | {
      code?: string;
      decline_code?: string;
      message?: string;
    };
    /** Unix time in seconds. */
    created?: number;
  };
  /** Cancel a payment intent. */
  function payment_intents_cancel(input: PaymentIntentsCancelInput): Promise<PaymentIntentsCancelOutput>;

  type PaymentIntentsListInput = {
    customer?: string;
    created?: number | {
      gt?: number;
      gte?: number;
      lt?: number;
      lte?: number;
    };
    /** Default: 10. */
    limit?: number;
    /** A cursor: the ID of the last object of the previous page. */
    starting_after?: string;
    ending_before?: string;
  };
  type PaymentIntentsListOutput = {
    data: {
      id: string;
      amount: number;
      /** Three-letter ISO currency code, in lowercase. */
      currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
      status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "requires_capture" | "canceled" | "succeeded";
      next_action?: {
        type?: "redirect_to_url" | "use_sdk";
        redirect_to_url?: {
          /** Format: uri. */
          url?: string;
          return_url?: string;
        };
      } | null;
      last_payment_error?: null | {
        code?: string;
        decline_code?: string;
        message?: string;
      };
      /** Unix time in seconds. */
      created?: number;
    }[];
    has_more: boolean;
  };
  /** List payment intents, newest first. */
  function payment_intents_list(input?: PaymentIntentsListInput): Promise<PaymentIntentsListOutput>;

  type RefundsCreateInput = {
    payment_intent: string;
    /** Leave it out to refund everything not yet refunded. */
    amount?: number;
    reason?: "duplicate" | "fraudulent" | "requested_by_customer" | null;
    /** Your own key-value pairs, kept with the object. */
    metadata?: Record<string, string>;
  };
  type RefundsCreateOutput = {
    id: string;
    amount: number;
    status: "pending" | "requires_action" | "succeeded" | "failed" | "canceled";
  };
  /** Refund a payment, fully or in part. */
  function refunds_create(input: RefundsCreateInput): Promise<RefundsCreateOutput>;

  type RefundsListInput = {
    payment_intent?: string;
    /** Default: 10. */
    limit?: number;
    /** A cursor: the ID of the last object of the previous page. */
    starting_after?: string;
    ending_before?: string;
  };
  /** List refunds. */
  function refunds_list(input?: RefundsListInput): Promise<unknown>;

  type CustomersCreateInput = {
    /** A customer. */
    customer: {
      name?: string;
      /** Format: email. */
      email?: string;
      phone?: string;
      address?: {
        line1: string;
        line2?: string | null;
        city?: string;
        state?: string;
        postal_code?: string;
        /** ISO 3166-1 alpha-2. */
        country: string;
      };
      shipping?: {
        name: string;
        address: {
          line1: string;
          line2?: string | null;
          city?: string;
          state?: string;
          postal_code?: string;
          /** ISO 3166-1 alpha-2. */
          country: string;
        };
      };
      tax_ids?: {
        type: "eu_vat" | "gb_vat" | "us_ein" | "ch_vat";
        value: string;
      }[];
      /** Your own key-value pairs, kept with the object. */
      metadata?: Record<string, string>;
    };
    /** How the customer pays. */
    payment_method?: {
      type: "card";
      card: {
        number: string;
        exp_month: number;
        exp_year: number;
        cvc?: string;
      };
    } | {
      type: "sepa_debit";
      sepa_debit: {
        iban: string;
      };
      mandate?: {
        /** Format: date-time. */
        accepted_at?: string;
        /** Format: ipv4. */
        ip_address?: string;
      };
    } | {
      type: "us_bank_account";
      us_bank_account: {
        routing_number: string;
        account_number: string;
        account_holder_type?: "individual" | "company";
      };
    } | {
      type: "wallet";
      wallet: "apple_pay" | "google_pay" | "paypal";
      token: string;
    };
    invoice_settings?: {
      default_payment_method?: string;
      footer?: string;
      custom_fields?: {
        name: string;
        value: string;
      }[] | null;
    };
  };
  /** Create a customer. */
  function customers_create(input: CustomersCreateInput): Promise<unknown>;

  type CustomersRetrieveInput = {
    id: string;
    expand?: ("default_source" | "invoice_settings.default_payment_method" | "subscriptions" | "tax_ids")[];
  };
  /** Retrieve a customer. */
  function customers_retrieve(input: CustomersRetrieveInput): Promise<unknown>;

  type CustomersUpdateInput = {
    id: string;
    name?: string | null;
    /** Format: email. */
    email?: string | null;
    address?: {
      line1: string;
      line2?: string | null;
      city?: string;
      state?: string;
      postal_code?: string;
      /** ISO 3166-1 alpha-2. */
      country: string;
    } | null;
    /** Your own key-value pairs, kept with the object. */
    metadata?: Record<string, string>;
    /** Credit (negative) or debt (positive), in the smallest currency unit. */
    balance?: number;
  };
  /** Update a customer; fields left out are unchanged, null clears one. */
  function customers_update(input: CustomersUpdateInput): Promise<unknown>;

  type CustomersDeleteInput = {
    id: string;
  };
  type CustomersDeleteOutput = {
    id: string;
    deleted: true;
  };
  /** Delete a customer and cancel their subscriptions. */
  function customers_delete(input: CustomersDeleteInput): Promise<CustomersDeleteOutput>;

  type CustomersSearchInput = {
    query: string;
    /** Default: 10. */
    limit?: number;
    page?: string;
  };
  /** Search customers with a query such as "email:'a@b.c'". */
  function customers_search(input: CustomersSearchInput): Promise<unknown>;

  type SubscriptionsCreateInput = {
    customer: string;
    items: {
      price?: string;
      quantity?: number;
      price_data?: {
        /** Three-letter ISO currency code, in lowercase. */
        currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
        product: string;
        /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
        unit_amount?: number;
        recurring: {
          interval: "day" | "week" | "month" | "year";
          /** Default: 1. */
          interval_count?: number;
        };
      };
    }[];
    trial_period_days?: number;
    /** Default: "charge_automatically". */
    collection_method?: "charge_automatically" | "send_invoice";
    days_until_due?: number;
    /** Default: false. */
    cancel_at_period_end?: boolean;
    proration_behavior?: "create_prorations" | "none" | "always_invoice";
    /** Your own key-value pairs, kept with the object. */
    metadata?: Record<string, string>;
  };
  /** Subscribe a customer to prices. */
  function subscriptions_create(input: SubscriptionsCreateInput): Promise<unknown>;

  type SubscriptionsCancelInput = {
    id: string;
    /** Default: false. */
    at_period_end?: boolean;
    cancellation_details?: {
      comment?: string | null;
      feedback?: "customer_service" | "low_quality" | "missing_features" | "other" | "switched_service" | "too_complex" | "too_expensive" | "unused";
    };
  };
  /** Cancel a subscription now, or at the end of its period. */
  function subscriptions_cancel(input: SubscriptionsCancelInput): Promise<unknown>;

  type InvoicesCreateInput = {
    customer: string;
    /** Three-letter ISO currency code, in lowercase. */
    currency?: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    lines: {
      description?: string;
      /** Default: 1. */
      quantity?: number;
      unit_amount: {
        /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
        amount: number;
        /** Three-letter ISO currency code, in lowercase. */
        currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
      };
      tax_rates?: string[];
      discounts?: ({
        coupon: string;
      } | {
        percent_off: number;
      })[];
    }[];
    due_date?: number;
    auto_advance?: boolean;
    footer?: string;
    /** Your own key-value pairs, kept with the object. */
    metadata?: Record<string, string>;
  };
  /** Create a draft invoice with line items. */
  function invoices_create(input: InvoicesCreateInput): Promise<unknown>;

  type InvoicesFinalizeInput = {
    id: string;
    auto_advance?: boolean;
  };
  /** Finalize a draft invoice so it can be paid. */
  function invoices_finalize(input: InvoicesFinalizeInput): Promise<unknown>;

  type InvoicesPayInput = {
    id: string;
    payment_method?: string;
    /** Default: false. */
    paid_out_of_band?: boolean;
  };
  /** Pay an invoice now, off-session. */
  function invoices_pay(input: InvoicesPayInput): Promise<unknown>;

  type BalanceRetrieveInput = Record<string, unknown>;
  type BalanceRetrieveOutput = {
    available: {
      /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
      amount: number;
      /** Three-letter ISO currency code, in lowercase. */
      currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    }[];
    pending: {
      /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
      amount: number;
      /** Three-letter ISO currency code, in lowercase. */
      currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    }[];
  };
  /** The account's balance per currency, available and pending. */
  function balance_retrieve(input?: BalanceRetrieveInput): Promise<BalanceRetrieveOutput>;

  type PayoutsCreateInput = {
    /** Amount in the currency's smallest unit (cents for USD; 100 = $1.00). */
    amount: number;
    /** Three-letter ISO currency code, in lowercase. */
    currency: "usd" | "eur" | "gbp" | "jpy" | "chf" | "cad" | "aud" | "sek";
    /** Default: "standard". */
    method?: "standard" | "instant";
    destination?: string;
    statement_descriptor?: string;
  };
  /** Send funds to the account's bank account or card. */
  function payouts_create(input: PayoutsCreateInput): Promise<unknown>;

  type WebhookEndpointsCreateInput = {
    /** Format: uri. */
    url: string;
    enabled_events: string[];
    api_version?: string;
    description?: string | null;
  };
  /** Receive events at a URL. */
  function webhook_endpoints_create(input: WebhookEndpointsCreateInput): Promise<unknown>;

  type DisputesUpdateInput = {
    id: string;
    evidence?: {
      customer_email_address?: string;
      product_description?: string;
      /** ID of an uploaded file. */
      receipt?: string;
      shipping_tracking_number?: string;
      uncategorized_text?: string;
    };
    /** Default: true. */
    submit?: boolean;
  };
  /** Submit evidence for a dispute. */
  function disputes_update(input: DisputesUpdateInput): Promise<unknown>;
}
